"""Operators and methods of ``Array`` and of tracers, as ``spmd.numpy`` functions.

Both classes live below the numpy layer, so their operators are installed from here, once, at
import. A binary operator returns ``NotImplemented`` for operands it does not recognise, so the
other operand's reflected operator gets its turn (as NumPy and JAX do).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from spmd._src.array import Array
from spmd._src.core import Tracer
from spmd._src.global_array import GlobalArray
from spmd._src.lax import refs
from spmd._src.numpy import ufuncs
from spmd._src.numpy.util import is_arraylike


def _binary(fn: Callable, reflected: bool = False) -> Callable:
    if reflected:

        def op(self, other):
            if not is_arraylike(other):
                return NotImplemented
            return fn(other, self)
    else:

        def op(self, other):
            if not is_arraylike(other):
                return NotImplemented
            return fn(self, other)

    return op


def _unary(fn: Callable) -> Callable:
    return lambda self: fn(self)


_BINARY = {
    "add": ufuncs.add,
    "sub": ufuncs.subtract,
    "mul": ufuncs.multiply,
    "truediv": ufuncs.true_divide,
    "floordiv": ufuncs.floor_divide,
    "mod": ufuncs.remainder,
    "pow": ufuncs.power,
    "and": ufuncs.bitwise_and,
    "or": ufuncs.bitwise_or,
    "xor": ufuncs.bitwise_xor,
    "lshift": ufuncs.left_shift,
    "rshift": ufuncs.right_shift,
    "divmod": ufuncs.divmod,
}

_COMPARE = {
    "eq": ufuncs.equal,
    "ne": ufuncs.not_equal,
    "lt": ufuncs.less,
    "le": ufuncs.less_equal,
    "gt": ufuncs.greater,
    "ge": ufuncs.greater_equal,
}

_UNARY = {
    "neg": ufuncs.negative,
    "pos": ufuncs.positive,
    "abs": ufuncs.absolute,
    "invert": ufuncs.invert,
}

# Methods delegating to spmd.numpy functions: name -> (module under spmd._src.numpy, function).
_METHODS: dict[str, tuple[str, str]] = {
    "all": ("reductions", "all"),
    "any": ("reductions", "any"),
    "argmax": ("reductions", "argmax"),
    "argmin": ("reductions", "argmin"),
    "cumprod": ("reductions", "cumprod"),
    "cumsum": ("reductions", "cumsum"),
    "max": ("reductions", "max"),
    "mean": ("statistics", "mean"),
    "min": ("reductions", "min"),
    "prod": ("reductions", "prod"),
    "std": ("statistics", "std"),
    "sum": ("reductions", "sum"),
    "var": ("statistics", "var"),
    "ptp": ("reductions", "ptp"),
    "argsort": ("sorting", "argsort"),
    "sort": ("sorting", "sort"),
    "clip": ("ufuncs", "clip"),
    "conj": ("ufuncs", "conjugate"),
    "conjugate": ("ufuncs", "conjugate"),
    "round": ("ufuncs", "round"),
    "astype": ("array_constructors", "astype"),
    "reshape": ("shape_ops", "_method_reshape"),
    "transpose": ("shape_ops", "_method_transpose"),
    "swapaxes": ("shape_ops", "swapaxes"),
    "squeeze": ("shape_ops", "squeeze"),
    "ravel": ("shape_ops", "ravel"),
    "flatten": ("shape_ops", "ravel"),
    "repeat": ("rearranging", "repeat"),
    "diagonal": ("lax_numpy", "diagonal"),
    "trace": ("lax_numpy", "trace"),
    "nonzero": ("lax_numpy", "nonzero"),
    "take": ("indexing", "take"),
    "dot": ("products", "dot"),
}

_PROPERTIES: dict[str, tuple[str, str]] = {
    "T": ("shape_ops", "_property_T"),
    "mT": ("shape_ops", "_property_mT"),
    "real": ("ufuncs", "real"),
    "imag": ("ufuncs", "imag"),
    "at": ("updates", "_at_property"),
}


def _lookup(module: str, name: str) -> Callable | None:
    try:
        mod = importlib.import_module(f"spmd._src.numpy.{module}")
    except ImportError:
        return None
    return getattr(mod, name, None)


def _install(cls: type) -> list[str]:
    missing = []
    for name, fn in _BINARY.items():
        setattr(cls, f"__{name}__", _binary(fn))
        setattr(cls, f"__r{name}__", _binary(fn, reflected=True))
    for name, fn in _COMPARE.items():
        setattr(cls, f"__{name}__", _binary(fn))
    for name, fn in _UNARY.items():
        setattr(cls, f"__{name}__", _unary(fn))
    for name, (mod, fname) in _METHODS.items():
        fn = _lookup(mod, fname)
        if fn is None:
            missing.append(f"{mod}.{fname}")
            continue
        setattr(cls, name, fn)
    for name, (mod, fname) in _PROPERTIES.items():
        fn = _lookup(mod, fname)
        if fn is None:
            missing.append(f"{mod}.{fname}")
            continue
        setattr(cls, name, property(fn))
    matmul = _lookup("products", "matmul")
    if matmul is not None:
        cls.__matmul__ = _binary(matmul)
        cls.__rmatmul__ = _binary(matmul, reflected=True)
    getitem = _lookup("indexing", "rewriting_take")
    if getitem is not None:
        cls.__getitem__ = getitem
    # Equality operators replace object identity; hashing stays disabled (arrays are mutable
    # in NumPy's model and unhashable in JAX's).
    cls.__hash__ = None  # type: ignore[assignment]
    cls.__setitem__ = immutable_setitem
    return missing


def immutable_setitem(self, idx, value) -> None:
    """``x[idx] = y``: refused, with the way to say it (JAX's TypeError, on arrays as on
    traced values)."""
    raise TypeError(
        f"'{type(self).__name__}' object does not support item assignment: spmd arrays are "
        "immutable; instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method "
        "(or a Ref from spmd.new_ref)"
    )


def install() -> list[str]:
    """Install operators and methods on Array, GlobalArray and Tracer; returns what is not yet
    defined."""
    missing = _install(Array)
    _install(GlobalArray)
    _install(Tracer)
    _install_ref_indexing(Tracer)
    return missing


def _install_ref_indexing(cls: type) -> None:
    # A traced mutable reference (a Ref argument of jit, new_ref inside it) reads with
    # ``r[idx]`` and writes with ``r[idx] = v``; arrays index as before and stay immutable.
    array_getitem = cls.__getitem__

    def getitem(self, idx):
        if refs.is_ref(self):
            return refs.ref_get(self, idx)
        return array_getitem(self, idx)

    def setitem(self, idx, value):
        if refs.is_ref(self):
            return refs.ref_set(self, idx, value)
        immutable_setitem(self, idx, value)

    cls.__getitem__ = getitem
    cls.__setitem__ = setitem
