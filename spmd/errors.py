"""spmd.errors: error classes with JAX's names. Re-exports only."""

from spmd._src.errors import (  # noqa: F401
    ConcretizationTypeError,
    InconclusiveDimensionOperation,
    JAXIndexError,
    JaxprTypeError,
    JaxRuntimeError,
    JAXTypeError,
    KeyReuseError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)
from spmd._src.interpreters.sharding_rules import ShardingTypeError  # noqa: F401,E402
from spmd._src.numpy.indexing import NonConcreteBooleanIndexError  # noqa: F401,E402
from spmd._src.sharding import UnevenShardingWarning  # noqa: F401,E402
