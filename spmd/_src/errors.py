"""Error classes with JAX's names and builtin bases (so ``except TypeError`` works as in JAX)."""

from __future__ import annotations


class JAXTypeError(TypeError):
    pass


class ConcretizationTypeError(JAXTypeError):
    """A traced value was used where Python needs a concrete value."""


class TracerBoolConversionError(ConcretizationTypeError):
    """A traced value was used in ``if``/``while``/``and``/``or``/``bool()``."""


class TracerIntegerConversionError(JAXTypeError):
    """A traced value was used where Python needs an ``int`` (``__index__``, ``range``)."""


class TracerArrayConversionError(JAXTypeError):
    """A traced value was converted to a NumPy array."""


class UnexpectedTracerError(Exception):
    """A tracer escaped the transformation that created it."""


class KeyReuseError(Exception):
    pass


class JaxRuntimeError(RuntimeError):
    """A running program failed (a callback returned the wrong shape or dtype)."""


class JAXIndexError(IndexError):
    pass


class JaxprTypeError(TypeError):
    """A jaxpr is ill-typed."""


class InconclusiveDimensionOperation(Exception):
    """A shape computation with symbolic dimensions has no definite answer (JAX's export)."""
