"""JAX's dtype semantics on NumPy dtypes: defaults, canonicalization, weak types, promotion.

Three ideas from JAX shape this module:

- **x64 canonicalization.** With ``jax_enable_x64`` off (the default) the 64-bit types are stood in
  for by their 32-bit counterparts: ``canonicalize_dtype(np.float64) == float32``. Python scalars
  and NumPy inputs are canonicalized when they enter; spmd values (anything carrying a
  ``weak_type`` attribute: arrays, tracers, avals) keep the dtype they were created with.
- **Weak types.** A Python scalar has no width of its own, so ``x + 1.0`` keeps ``x``'s float16
  instead of widening it. A value made from a Python scalar stays *weakly typed* (``weak_type``)
  until it meets a strongly typed operand.
- **A promotion lattice** instead of NumPy's value-based table: the result dtype of an operation is
  the least upper bound of its operands' nodes. Weak Python scalars are nodes of their own that sit
  *below* every sized type of their kind, which is what makes ``int8 + 1 -> int8``; a few types
  (float8, int4, ...) are dead ends above which nothing sits, so mixing them with other types is an
  error rather than a silent widening.

>>> result_type(np.float16, 1.0)
dtype('float16')
>>> result_type(np.int8, np.uint8)
dtype('int16')
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from typing import Any

import ml_dtypes
import numpy as np

from spmd._src.config import config

# --- dtype objects ---------------------------------------------------------------------------
# Scalar types, as ``jax.numpy`` exposes them (``np.dtype(float32)`` gives the dtype).

bool_ = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
bfloat16 = ml_dtypes.bfloat16
float8_e3m4 = ml_dtypes.float8_e3m4
float8_e4m3 = ml_dtypes.float8_e4m3
float8_e4m3b11fnuz = ml_dtypes.float8_e4m3b11fnuz
float8_e4m3fn = ml_dtypes.float8_e4m3fn
float8_e4m3fnuz = ml_dtypes.float8_e4m3fnuz
float8_e5m2 = ml_dtypes.float8_e5m2
float8_e5m2fnuz = ml_dtypes.float8_e5m2fnuz
float8_e8m0fnu = ml_dtypes.float8_e8m0fnu
float6_e2m3fn = ml_dtypes.float6_e2m3fn
float6_e3m2fn = ml_dtypes.float6_e3m2fn
float4_e2m1fn = ml_dtypes.float4_e2m1fn
int2, uint2 = ml_dtypes.int2, ml_dtypes.uint2
int4, uint4 = ml_dtypes.int4, ml_dtypes.uint4

# The dtype of tangents of integer and boolean values: a zero-size record, so it holds no data.
float0: np.dtype = np.dtype([("float0", np.void, 0)])


class extended(np.generic):
    """Scalar type above the extended dtypes (typed PRNG keys' ``key<fry>``), as in JAX:
    ``issubdtype(key.dtype, extended)`` holds, and no NumPy category contains them."""


class prng_key(extended):
    """Scalar type of typed PRNG key dtypes (``issubdtype(key.dtype, prng_key)``)."""


def is_extended(dtype: Any) -> bool:
    """Whether ``dtype`` is an extended dtype (one NumPy cannot represent, such as a key's)."""
    t = getattr(dtype, "type", None)
    return isinstance(t, type) and issubclass(t, extended)


class TypePromotionError(ValueError):
    """Raised when operands have no implicit promotion path (strict mode, float8, int4, ...)."""


# --- the supported dtypes ---------------------------------------------------------------------

_BOOL = np.dtype(np.bool_)
_SIGNED = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)]
_UNSIGNED = [np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)]
_STD_FLOATS = [np.dtype(t) for t in (np.float16, np.float32, np.float64)]
_COMPLEX = [np.dtype(np.complex64), np.dtype(np.complex128)]
# The narrow floats (other than bfloat16): ml_dtypes types, dead ends of the lattice.
_NARROW_FLOATS = [
    np.dtype(t)
    for t in (
        float8_e3m4,
        float8_e4m3,
        float8_e4m3b11fnuz,
        float8_e4m3fn,
        float8_e4m3fnuz,
        float8_e5m2,
        float8_e5m2fnuz,
        float8_e8m0fnu,
        float6_e2m3fn,
        float6_e3m2fn,
        float4_e2m1fn,
    )
]
# Sub-byte integers; JAX includes 1-bit ones whenever ml_dtypes has them.
_NARROW_SIGNED = [np.dtype(t) for t in (int2, int4)]
_NARROW_UNSIGNED = [np.dtype(t) for t in (uint2, uint4)]
if hasattr(ml_dtypes, "int1"):
    _NARROW_SIGNED.append(np.dtype(ml_dtypes.int1))
    _NARROW_UNSIGNED.append(np.dtype(ml_dtypes.uint1))
_NARROW_INTS = _NARROW_SIGNED + _NARROW_UNSIGNED

# ml_dtypes' scalar types subclass np.generic directly, so NumPy's hierarchy cannot place them;
# this says where they belong (bfloat16 is a floating type, int4 a signed integer, ...).
_CUSTOM_CATEGORY: dict[np.dtype, type] = {
    np.dtype(bfloat16): np.floating,
    **{d: np.floating for d in _NARROW_FLOATS},
    **{d: np.signedinteger for d in _NARROW_SIGNED},
    **{d: np.unsignedinteger for d in _NARROW_UNSIGNED},
}
_CUSTOM_CATEGORY_OF_TYPE = {d.type: c for d, c in _CUSTOM_CATEGORY.items()}
_CUSTOM_FLOATS = frozenset(d for d, c in _CUSTOM_CATEGORY.items() if c is np.floating)

_NUMERIC = frozenset([_BOOL, *_SIGNED, *_UNSIGNED, *_STD_FLOATS, *_COMPLEX, *_CUSTOM_CATEGORY])
_SUPPORTED = _NUMERIC | {float0}
_SCALAR_TYPES = frozenset(d.type for d in _NUMERIC)

_TO_32 = {
    np.dtype(np.int64): np.dtype(np.int32),
    np.dtype(np.uint64): np.dtype(np.uint32),
    np.dtype(np.float64): np.dtype(np.float32),
    np.dtype(np.complex128): np.dtype(np.complex64),
}

_PY_SCALAR_TYPES = (bool, int, float, complex)


# --- defaults and canonicalization -------------------------------------------------------------


def _x64() -> bool:
    return config.read("jax_enable_x64")


def default_int_dtype() -> np.dtype:
    """The dtype of Python ints: int64 with x64 enabled, else int32."""
    return np.dtype(np.int64 if _x64() else np.int32)


def default_uint_dtype() -> np.dtype:
    """uint64 with x64 enabled, else uint32."""
    return np.dtype(np.uint64 if _x64() else np.uint32)


def default_float_dtype() -> np.dtype:
    """The dtype of Python floats: float64 with x64 enabled, else float32."""
    return np.dtype(np.float64 if _x64() else np.float32)


def default_complex_dtype() -> np.dtype:
    """complex128 with x64 enabled, else complex64."""
    return np.dtype(np.complex128 if _x64() else np.complex64)


def _default_for_kind(kind: str) -> np.dtype:
    """Default dtype of a kind: 'b', 'i', 'u', 'f' or 'c'."""
    if kind == "b":
        return _BOOL
    return {
        "i": default_int_dtype,
        "u": default_uint_dtype,
        "f": default_float_dtype,
        "c": default_complex_dtype,
    }[kind]()


# Python scalar type -> kind of its default dtype.
_PY_KIND = {bool: "b", int: "i", float: "f", complex: "c"}


def canonicalize_dtype(dtype: Any) -> np.dtype:
    """The dtype JAX computes in for ``dtype``: 64-bit types become 32-bit unless x64 is on.

    Accepts anything ``np.dtype`` accepts (``int`` and ``float`` mean the default int and float).

    >>> canonicalize_dtype(np.float64)  # with x64 off
    dtype('float32')
    """
    try:
        return _canonicalize_cached(dtype, _x64())
    except TypeError:  # unhashable dtype specs (e.g. a list of fields)
        dt = np.dtype(dtype)
        return dt if _x64() else _TO_32.get(dt, dt)


@functools.lru_cache(maxsize=512)
def _canonicalize_cached(dtype: Any, x64: bool) -> np.dtype:
    dt = np.dtype(dtype)
    return dt if x64 else _TO_32.get(dt, dt)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_stacklevel() -> int:
    """The ``stacklevel`` naming the innermost frame outside spmd: the line a warning is about
    sits in the user's code, however deep in spmd the check ran."""
    level, frame = 1, sys._getframe(2)  # 2: the caller of the function that warns
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        level, frame = level + 1, frame.f_back
    return level + 1


def check_user_dtype_supported(requested: Any, fn: str | None = None) -> None:
    """Warn (UserWarning) that a dtype a user asked for is truncated: with x64 off a 64-bit
    dtype becomes its 32-bit counterpart. Python's ``int``, ``float`` and ``complex`` ask for
    the default of their kind, not for a width, so they never warn.

    >>> check_user_dtype_supported(np.float64, "zeros")  # doctest: +SKIP
    UserWarning: zeros: dtype float64 was requested, but 64-bit dtypes are disabled, so it is
    truncated to float32. ...
    """
    # (`is`, not `in`: np.dtype("float64") == float)
    if requested is None or any(requested is t for t in _PY_SCALAR_TYPES):
        return
    if type(requested) is not np.dtype:  # (most calls pass a dtype: on the hot path, no call)
        try:
            requested = np.dtype(requested)
        except (TypeError, ValueError):  # not a dtype: the caller's own check reports it
            return
    to = _TO_32.get(requested)
    if to is not None and not _x64():
        warnings.warn(
            f"{fn + ': ' if fn else ''}dtype {requested.name} was requested, but 64-bit dtypes are "
            f"disabled, so it is truncated to {to.name}. Enable them with "
            "jax.config.update('jax_enable_x64', True) or the JAX_ENABLE_X64=1 environment "
            "variable.",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )


# --- the dtype of a value ----------------------------------------------------------------------


def is_python_scalar(x: Any) -> bool:
    """True for instances of bool, int, float and complex (not NumPy scalars, which subclass them).

    >>> is_python_scalar(1.0), is_python_scalar(np.float64(1.0))
    (True, False)
    """
    return type(x) in _PY_SCALAR_TYPES


def is_weakly_typed(x: Any) -> bool:
    """True for int/float/complex Python scalars and values whose ``weak_type`` is True.

    Python bools are not weak: ``True`` promotes like a strongly typed bool array.

    >>> is_weakly_typed(1.0), is_weakly_typed(True), is_weakly_typed(np.float32(1))
    (True, False, False)
    """
    t = type(x)
    if t in _PY_SCALAR_TYPES:
        return t is not bool
    return bool(getattr(x, "weak_type", False))


def _check_supported(dt: np.dtype, x: Any) -> np.dtype:
    if dt not in _SUPPORTED:
        raise TypeError(
            f"{x!r} has dtype {dt}, which is not a valid array dtype: only boolean and numeric "
            "dtypes are supported."
        )
    return dt


def dtype(x: Any, canonicalize: bool = False) -> np.dtype:
    """The dtype of a value or dtype-like, checked to be a dtype arrays can have.

    Python scalars and Python scalar types give the default dtype of their kind (``dtype(1)`` is
    int32 with x64 off), as in JAX. With ``canonicalize=True`` NumPy arrays, NumPy scalars and
    dtype-likes are canonicalized too; values that carry ``weak_type`` (spmd arrays, tracers,
    avals) never are: a 64-bit array made under x64 keeps its dtype.

    >>> dtype(1.0), dtype(np.zeros(2)), dtype(np.zeros(2), canonicalize=True)
    (dtype('float32'), dtype('float64'), dtype('float32'))
    """
    if x is None:
        raise ValueError("dtype: got None, which is not a value or a dtype")
    t = type(x)
    if t in _PY_SCALAR_TYPES:
        return _default_for_kind(_PY_KIND[t])
    if t is type and x in _PY_KIND:
        return _default_for_kind(_PY_KIND[x])
    dt = getattr(x, "dtype", None)
    if isinstance(dt, np.dtype):  # arrays, NumPy scalars, tracers, avals, jnp scalar types
        _check_supported(dt, x)
        if canonicalize and not hasattr(x, "weak_type"):
            return canonicalize_dtype(dt)
        return dt
    try:
        dt = np.dtype(x)
    except Exception as e:
        raise TypeError(f"Cannot determine the dtype of {x!r}") from e
    _check_supported(dt, x)
    return canonicalize_dtype(dt) if canonicalize else dt


# --- the promotion lattice ---------------------------------------------------------------------
#
# Nodes are strings: a dtype's name for strongly typed values, and "weak_int", "weak_float",
# "weak_complex" for weakly typed ones (Python scalars, and arrays made from them). A weak node
# sits below every sized type of its kind, so joining it with a strong type keeps that type's
# width (``int8 + 1 -> int8``, ``float16 + 1.0 -> float16``), while a weak value of a wider kind
# still wins the kind (``int8 + 1.0`` is a weak float). A result that is still weak (no strong
# operand fixed its width) takes the default dtype of its kind: float32, or float64 under x64.

_WI, _WF, _WC = "weak_int", "weak_float", "weak_complex"
_WEAK_NODES = frozenset([_WI, _WF, _WC])
_WEAK_NODE_OF_KIND = {"i": _WI, "u": _WI, "f": _WF, "c": _WC}


def _names(dts: list[np.dtype]) -> list[str]:
    return [d.name for d in dts]


def _standard_edges(x64: bool) -> dict[str, list[str]]:
    """Each node -> the nodes directly above it, for the standard (non-strict) promotion mode."""
    edges = {
        "bool": [_WI],
        # Python ints fit any integer type. Sub-byte ints have nothing above them, so mixing them
        # with anything but a Python int is an error instead of a silent widening.
        _WI: ["int8", "uint8", *_names(_NARROW_INTS)],
        "int8": ["int16"],
        "int16": ["int32"],
        "int32": ["int64"],
        "int64": [_WF],
        # An unsigned type promotes to the next wider unsigned and to a signed type that holds it.
        "uint8": ["uint16", "int16"],
        "uint16": ["uint32", "int32"],
        # Without x64, uint32 + int32 gives int32 rather than forming a 64-bit type from 32-bit
        # inputs; int64 still sits above through int32.
        "uint32": ["uint64", "int64" if x64 else "int32"],
        # No integer type holds both uint64 and int64: they meet at the (default) float.
        "uint64": [_WF],
        # Narrow floats (float8, ...) are dead ends like sub-byte ints; bfloat16 and float16 meet
        # at float32 since neither holds the other.
        _WF: ["bfloat16", "float16", *_names(_NARROW_FLOATS), _WC],
        "bfloat16": ["float32"],
        "float16": ["float32"],
        "float32": ["float64", "complex64"],
        "float64": ["complex128"],
        _WC: ["complex64"],
        "complex64": ["complex128"],
        "complex128": [],
    }
    for name in _names(_NARROW_INTS + _NARROW_FLOATS):
        edges[name] = []
    return edges


def _strict_edges() -> dict[str, list[str]]:
    """Strict mode: only weak values promote, and only to types of their own or a wider kind."""
    ints = _names(_SIGNED + _UNSIGNED + _NARROW_INTS)
    floats = _names(_STD_FLOATS + [np.dtype(bfloat16)] + _NARROW_FLOATS)
    edges: dict[str, list[str]] = {n: [] for n in ["bool", *ints, *floats, *_names(_COMPLEX)]}
    edges[_WI] = [_WF, *ints]
    edges[_WF] = [_WC, *floats]
    edges[_WC] = _names(_COMPLEX)
    return edges


def _upper_bounds(edges: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    """Each node -> every node at or above it (the reflexive-transitive closure of ``edges``)."""
    out: dict[str, frozenset[str]] = {}

    def visit(n: str) -> frozenset[str]:
        if n not in out:
            above = {n}
            for m in edges[n]:
                above |= visit(m)
            out[n] = frozenset(above)
        return out[n]

    for n in edges:
        visit(n)
    return out


_UPPER_BOUNDS = {
    ("standard", False): _upper_bounds(_standard_edges(x64=False)),
    ("standard", True): _upper_bounds(_standard_edges(x64=True)),
    ("strict", False): _upper_bounds(_strict_edges()),
    ("strict", True): _upper_bounds(_strict_edges()),
}

# name -> dtype for strong nodes; weak nodes stand for the Python types (int64, float64, ...).
_NODE_DTYPE: dict[str, np.dtype] = {d.name: d for d in _NUMERIC}
_NODE_DTYPE.update(
    {_WI: np.dtype(np.int64), _WF: np.dtype(np.float64), _WC: np.dtype(np.complex128)}
)


@functools.lru_cache(maxsize=1024)
def _join(nodes: frozenset[str], mode: str, x64: bool) -> str:
    """The least upper bound of ``nodes``, or TypePromotionError when there is none."""
    ubs = _UPPER_BOUNDS[mode, x64]
    for n in nodes:
        if n not in ubs:
            raise ValueError(f"dtype {_show(n)} does not take part in promotion")
    common = frozenset.intersection(*(ubs[n] for n in nodes))
    # The least common upper bound is the one whose own upper bounds cover all the others.
    least = [c for c in common if common <= ubs[c]]
    if len(least) == 1:
        return least[0]
    assert not least, f"promotion lattice is ill-formed at {sorted(nodes)}"
    raise TypePromotionError(_no_path_message(nodes, mode))


def _no_path_message(nodes: frozenset[str], mode: str) -> str:
    shown = ", ".join(sorted(_describe_node(n) for n in nodes))
    head = f"no implicit dtype promotion between ({shown})"
    if mode == "strict":
        return (
            f"{head} with jax_numpy_dtype_promotion='strict'. Cast the operands to one dtype "
            "explicitly (e.g. x.astype('float32')), or set jax_numpy_dtype_promotion='standard'."
        )
    names = {_NODE_DTYPE[n] for n in nodes}
    if names & _CUSTOM_FLOATS - {np.dtype(bfloat16)}:
        why = "8-, 6- and 4-bit floats never promote implicitly"
    elif names & set(_NARROW_INTS):
        why = "1-, 2- and 4-bit integers never promote implicitly"
    else:
        why = "these dtypes have no common type"
    return f"{head}: {why}. Cast the operands explicitly, e.g. x.astype('float32')."


def _show(dt: Any) -> str:
    """A dtype or node for messages; float0's NumPy name is just 'void'."""
    if isinstance(dt, str):
        return "float0" if dt == float0.name else dt
    return "float0" if dt == float0 else str(dt)


def _describe_node(n: str) -> str:
    return {_WI: "int (weak)", _WF: "float (weak)", _WC: "complex (weak)"}.get(n, n)


def _weak_node(dt: np.dtype) -> str:
    if dt == _BOOL:  # there is no weak bool: True promotes like a bool array
        return "bool"
    if dt in _CUSTOM_CATEGORY:
        return _WF if _CUSTOM_CATEGORY[dt] is np.floating else _WI
    return _WEAK_NODE_OF_KIND[dt.kind]


# Lookup tables, since ``np.dtype.name`` is slow and this is on every operation's path.
_STRONG_NODE = {d: d.name for d in _NUMERIC}
_WEAK_NODE = {d: _weak_node(d) for d in _NUMERIC}


def _node(dt: np.dtype, weak: bool) -> str:
    """The lattice node of a value of dtype ``dt`` (float0 has none and fails in ``_join``)."""
    return (_WEAK_NODE if weak else _STRONG_NODE).get(dt) or _show(dt)


def _weak_default(dt: np.dtype) -> np.dtype:
    """The dtype a weakly typed result takes: the default dtype of its kind."""
    cat = _CUSTOM_CATEGORY.get(dt)
    if cat is not None:
        kind = "f" if cat is np.floating else ("i" if cat is np.signedinteger else "u")
        return _default_for_kind(kind)
    return _default_for_kind(dt.kind)


def _dtype_and_weak(x: Any) -> tuple[np.dtype, bool]:
    """(dtype, weak) of one promotion operand; NumPy and Python inputs are canonicalized."""
    t = type(x)
    if t in _PY_SCALAR_TYPES:
        return _default_for_kind(_PY_KIND[t]), t is not bool
    if t is type and x in _PY_KIND:  # Python types are weak dtype-likes: int8 vs int -> int8
        return _default_for_kind(_PY_KIND[x]), x is not bool
    if x is None:
        return default_float_dtype(), False
    return dtype(x, canonicalize=True), bool(getattr(x, "weak_type", False))


def result_type(*args: Any, return_weak_type_flag: bool = False) -> Any:
    """The dtype an operation on ``args`` computes in, by JAX's promotion rules.

    ``args`` may be dtypes, Python scalars or types, NumPy arrays, or values with ``.dtype`` and
    ``.weak_type``. With ``return_weak_type_flag=True`` returns ``(dtype, weak_type)``.

    >>> result_type(np.int8, 1), result_type(np.int8, 1.0, return_weak_type_flag=True)
    (dtype('int8'), (dtype('float32'), True))
    """
    if not args:
        raise ValueError("result_type: at least one array or dtype is required")
    dts, weaks = zip(*map(_dtype_and_weak, args))
    mode = config.read("jax_numpy_dtype_promotion")
    if len(dts) == 1:
        out, weak = dts[0], weaks[0]
    elif len(set(dts)) == 1 and not all(weaks):
        # One dtype and a strong operand: nothing to promote (this also lets float0 through).
        out, weak = dts[0], False
    elif all(weaks) and mode != "strict":
        # Only weak operands: join their actual dtypes and keep the result weak. Joining the weak
        # nodes instead would lose e.g. that weak uint8 + weak uint8 is unsigned.
        out = _NODE_DTYPE[_join(frozenset(_node(d, False) for d in dts), mode, _x64())]
        weak = True
    else:
        node = _join(frozenset(map(_node, dts, weaks)), mode, _x64())
        out, weak = _NODE_DTYPE[node], node in _WEAK_NODES
    weak = weak and out != _BOOL
    if weak:  # a weak result has the default width of its kind
        out = _weak_default(out)
    return (out, weak) if return_weak_type_flag else out


def promote_types(a: Any, b: Any) -> np.dtype:
    """The dtype a binary operation on dtypes ``a`` and ``b`` computes in (no canonicalization).

    Python types are weak: ``promote_types(np.uint8, int)`` is uint8, and ``promote_types(float,
    float)`` is float64 (the dtype of a Python float), as in ``jnp.promote_types``.

    >>> promote_types(np.int8, np.uint8)
    dtype('int16')
    """
    nodes = frozenset(_promote_node(t) for t in (a, b))
    node = _join(nodes, config.read("jax_numpy_dtype_promotion"), _x64())
    return _NODE_DTYPE[node]


def _promote_node(t: Any) -> str:
    if isinstance(t, type) and t in _PY_KIND and t is not bool:
        return _WEAK_NODE_OF_KIND[_PY_KIND[t]]
    dt = np.dtype(t)
    if dt not in _NUMERIC:
        raise ValueError(f"dtype {_show(dt)} does not take part in promotion")
    return dt.name


# --- the NumPy hierarchy, extended to ml_dtypes' types --------------------------------------------


def _scalar_type(x: Any) -> type:
    if isinstance(x, type) and issubclass(x, np.generic):
        return x
    if is_extended(x):
        return x.type
    return np.dtype(x).type


def issubdtype(a: Any, b: Any) -> bool:
    """``np.issubdtype`` that also places bfloat16, float8 and int4 in NumPy's hierarchy.

    >>> issubdtype(bfloat16, np.floating), issubdtype(int4, np.signedinteger)
    (True, True)
    """
    a_t, b_t = _scalar_type(a), _scalar_type(b)
    if issubclass(a_t, b_t):
        return True
    # ml_dtypes' scalar types subclass np.generic directly; test their category instead.
    cat = _CUSTOM_CATEGORY_OF_TYPE.get(a_t)
    return cat is not None and issubclass(cat, b_t)


_ISDTYPE_KINDS = {
    "bool": lambda d: d == _BOOL,
    "signed integer": lambda d: issubdtype(d, np.signedinteger),
    "unsigned integer": lambda d: issubdtype(d, np.unsignedinteger),
    "integral": lambda d: issubdtype(d, np.integer),
    "real floating": lambda d: issubdtype(d, np.floating),
    "complex floating": lambda d: issubdtype(d, np.complexfloating),
    "numeric": lambda d: d != _BOOL and issubdtype(d, np.number),
}


def isdtype(dtype_: Any, kind: Any) -> bool:
    """Array-API ``isdtype``: ``kind`` is a dtype, a kind name ('integral', ...), or a tuple.

    >>> isdtype(bfloat16, "real floating"), isdtype(np.int8, ("bool", np.int8))
    (True, True)
    """
    dt = np.dtype(dtype_)
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _ISDTYPE_KINDS:
            if _ISDTYPE_KINDS[k](dt):
                return True
            continue
        if isinstance(k, type) and issubclass(k, np.generic) and k not in _SCALAR_TYPES:
            raise TypeError(f"isdtype: kind must be a dtype, a kind name or a tuple, got {k!r}")
        try:
            if dt == np.dtype(k):
                return True
        except TypeError:
            raise ValueError(
                f"isdtype: unknown kind {k!r}; expected a dtype or one of {list(_ISDTYPE_KINDS)}"
            ) from None
    return False


# --- small predicates and conversions ------------------------------------------------------------


def _as_dtype(x: Any) -> np.dtype:
    return x if isinstance(x, np.dtype) else dtype(x)


def is_bool(x: Any) -> bool:
    """True if ``x`` (a dtype or value) is boolean."""
    return _as_dtype(x) == _BOOL


def is_int(x: Any) -> bool:
    """True for signed and unsigned integer dtypes (not bool), including int4."""
    return issubdtype(_as_dtype(x), np.integer)


def is_float(x: Any) -> bool:
    """True for real floating dtypes, including bfloat16 and float8."""
    return issubdtype(_as_dtype(x), np.floating)


def is_complex(x: Any) -> bool:
    """True for complex dtypes."""
    return issubdtype(_as_dtype(x), np.complexfloating)


def scalar_type_of(x: Any) -> type:
    """The Python scalar type (bool, int, float or complex) matching a value's or dtype's kind.

    >>> scalar_type_of(np.zeros(2, bfloat16)), scalar_type_of(np.dtype("uint8"))
    (<class 'float'>, <class 'int'>)
    """
    dt = _as_dtype(x)
    if dt == _BOOL:
        return bool
    if is_int(dt):
        return int
    if is_float(dt):
        return float
    if is_complex(dt):
        return complex
    raise TypeError(f"scalar_type_of: {x!r} has dtype {dt}, which has no Python scalar type")


def itemsize_bits(dtype: Any) -> int:
    """Bits per element of ``dtype``: 4 for int4 and float4_e2m1fn, 8 for bool, ...

    >>> itemsize_bits(int4), itemsize_bits(np.float32)
    (4, 32)
    """
    if dtype is None or is_extended(dtype):
        raise ValueError(f"unexpected input: dtype={dtype}")
    dt = np.dtype(dtype)
    return _SUB_BYTE_BITS.get(dt, dt.itemsize * 8)


# ml_dtypes stores these in whole bytes; their width is what the name says.
_SUB_BYTE_BITS = {
    np.dtype(int2): 2,
    np.dtype(uint2): 2,
    np.dtype(int4): 4,
    np.dtype(uint4): 4,
    np.dtype(float4_e2m1fn): 4,
    np.dtype(float6_e2m3fn): 6,
    np.dtype(float6_e3m2fn): 6,
    **(
        {np.dtype(ml_dtypes.int1): 1, np.dtype(ml_dtypes.uint1): 1}
        if hasattr(ml_dtypes, "int1")
        else {}
    ),
}


def to_numeric_dtype(dt: Any) -> np.dtype:
    """bool -> int32 (as JAX's ``promote_dtypes_numeric``); other dtypes unchanged."""
    dt = np.dtype(dt)
    return np.dtype(np.int32) if dt == _BOOL else dt


def to_inexact_dtype(dt: Any) -> np.dtype:
    """The floating dtype ``jnp.sin``/``jnp.mean`` compute integer and bool inputs in.

    Like JAX: bool and integers up to 32 bits give float32 even with x64 on; int64/uint64 give
    float64. Inexact dtypes are unchanged.

    >>> to_inexact_dtype(np.int8), to_inexact_dtype(np.int64), to_inexact_dtype(bfloat16)
    (dtype('float32'), dtype('float64'), dtype(bfloat16))
    """
    dt = np.dtype(dt)
    if dt == _BOOL or issubdtype(dt, np.integer):
        return np.dtype(np.float64 if dt.itemsize == 8 else np.float32)
    return dt


def reduction_accum_dtype(dt: Any) -> np.dtype:
    """The dtype a sum-like reduction accumulates in: float16 and bfloat16 in float32.

    This is what ``jnp.sum``/``jnp.mean`` do on CPU; every other dtype accumulates in itself.
    """
    dt = np.dtype(dt)
    if dt == np.dtype(np.float16) or dt == np.dtype(bfloat16):
        return np.dtype(np.float32)
    return dt


def short_dtype_name(dt: Any) -> str:
    """The dtype's name in printed jaxprs: 'f32', 'bf16', 'i8', 'u4', 'c64', 'bool', 'float0'.

    >>> short_dtype_name(np.float32), short_dtype_name(float8_e4m3fn)
    ('f32', 'f8_e4m3fn')
    """
    return _short_name(np.dtype(dt))


@functools.cache
def _short_name(dt: np.dtype) -> str:
    if dt == float0:
        return "float0"
    name = dt.name
    # Order matters: "uint" before "int", and "bfloat16" -> "bf16" through "float" -> "f".
    for long, short in (("complex", "c"), ("float", "f"), ("uint", "u"), ("int", "i")):
        name = name.replace(long, short)
    return name


def iinfo(int_type: Any) -> ml_dtypes.iinfo:
    """Machine limits of an integer dtype (int4 and friends included).

    >>> int(iinfo(int4).max)
    7
    """
    return ml_dtypes.iinfo(_as_np_dtype(int_type))


def finfo(float_type: Any) -> ml_dtypes.finfo:
    """Machine limits of a floating dtype, bfloat16 and float8 included (complex gives its part).

    >>> float(finfo(bfloat16).eps)
    0.0078125
    """
    return ml_dtypes.finfo(_as_np_dtype(float_type))


def _as_np_dtype(x: Any) -> np.dtype:
    dt = getattr(x, "dtype", None)
    return dt if isinstance(dt, np.dtype) else np.dtype(x)


# --- Python scalars to arrays ---------------------------------------------------------------------


def coerce_scalar(x: Any, dtype_: Any = None, *, weak: bool = False) -> np.ndarray:
    """A 0-d NumPy array of ``dtype_`` holding the Python scalar ``x``.

    ``dtype_=None`` means the default dtype of ``x``'s kind. Out-of-range Python ints raise
    ``OverflowError`` (``jnp.array(2**40)`` with x64 off). With ``weak=True`` ``x`` is a weakly
    typed operand of a binary operation, as in ``int8_array + 1000``: it must fit its default dtype
    (int32/int64), and is then cast with wrap-around, as JAX does.

    >>> coerce_scalar(3, np.int8), coerce_scalar(1000, np.int8, weak=True)
    (array(3, dtype=int8), array(-24, dtype=int8))
    """
    t = type(x)
    if t not in _PY_SCALAR_TYPES:
        raise TypeError(f"coerce_scalar: expected a Python scalar, got {type(x).__name__}")
    default = _default_for_kind(_PY_KIND[t])
    target = default if dtype_ is None else np.dtype(dtype_)
    with np.errstate(over="ignore", invalid="ignore"):
        if weak and t is not bool:
            # The scalar first becomes a value of its default dtype, then is converted like an
            # array (C casts: integers wrap, large floats become inf).
            if t is int:
                _check_int_range(x, default)
            return np.asarray(x, default).astype(target)
        if t is int and issubdtype(target, np.integer):
            _check_int_range(x, target)
        return np.asarray(x, target)


def _check_int_range(x: int, dt: np.dtype) -> None:
    info = ml_dtypes.iinfo(dt)
    if x < info.min or x > info.max:
        if x < 0 and info.min == 0:
            raise OverflowError(f"Python int {x} out of bounds for {dt.name}")
        raise OverflowError(f"Python int {x} too large to convert to {dt.name}")
