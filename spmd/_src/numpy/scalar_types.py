"""``jnp.float32`` and friends: dtype objects that are also constructors of arrays.

``jnp.float32(x)`` converts ``x`` to a float32 Array (under jit, a ``convert_element_type``),
while ``np.dtype(jnp.float32)`` and ``jnp.zeros(3, jnp.float32)`` see the NumPy dtype through
the ``dtype`` attribute, as with JAX.

>>> jnp.float32(1.5)
Array(1.5, dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from spmd._src import dtypes


class _ScalarMeta(type):
    dtype: np.dtype

    def __call__(cls, x: Any) -> Any:
        from spmd._src.numpy.array_constructors import asarray  # lazy: needed only when called

        return asarray(x, dtype=cls.dtype)

    def __eq__(cls, other: object) -> bool:
        return cls is other or (isinstance(other, type) and other is cls.dtype.type)

    def __ne__(cls, other: object) -> bool:
        return not cls.__eq__(other)

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)

    def __repr__(cls) -> str:
        return f"<class 'spmd.numpy.{cls.__name__}'>"

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls.dtype.type)


def _make(name: str, scalar_type: Any) -> type:
    dt = np.dtype(scalar_type)
    return _ScalarMeta(name, (object,), {"dtype": dt, "__doc__": f"The {dt.name} dtype."})


bool_ = _make("bool_", np.bool_)
int8 = _make("int8", np.int8)
int16 = _make("int16", np.int16)
int32 = _make("int32", np.int32)
int64 = _make("int64", np.int64)
uint8 = _make("uint8", np.uint8)
uint16 = _make("uint16", np.uint16)
uint32 = _make("uint32", np.uint32)
uint64 = _make("uint64", np.uint64)
float16 = _make("float16", np.float16)
float32 = _make("float32", np.float32)
float64 = _make("float64", np.float64)
complex64 = _make("complex64", np.complex64)
complex128 = _make("complex128", np.complex128)
bfloat16 = _make("bfloat16", dtypes.bfloat16)
float8_e3m4 = _make("float8_e3m4", dtypes.float8_e3m4)
float8_e4m3 = _make("float8_e4m3", dtypes.float8_e4m3)
float8_e4m3b11fnuz = _make("float8_e4m3b11fnuz", dtypes.float8_e4m3b11fnuz)
float8_e4m3fn = _make("float8_e4m3fn", dtypes.float8_e4m3fn)
float8_e4m3fnuz = _make("float8_e4m3fnuz", dtypes.float8_e4m3fnuz)
float8_e5m2 = _make("float8_e5m2", dtypes.float8_e5m2)
float8_e5m2fnuz = _make("float8_e5m2fnuz", dtypes.float8_e5m2fnuz)
float8_e8m0fnu = _make("float8_e8m0fnu", dtypes.float8_e8m0fnu)
float6_e2m3fn = _make("float6_e2m3fn", dtypes.float6_e2m3fn)
float6_e3m2fn = _make("float6_e3m2fn", dtypes.float6_e3m2fn)
float4_e2m1fn = _make("float4_e2m1fn", dtypes.float4_e2m1fn)
int2 = _make("int2", dtypes.int2)
uint2 = _make("uint2", dtypes.uint2)
int4 = _make("int4", dtypes.int4)
uint4 = _make("uint4", dtypes.uint4)
# 1-bit integers where ml_dtypes has them (0.5+), as JAX.
_ONE_BIT = ("int1", "uint1") if hasattr(dtypes.ml_dtypes, "int1") else ()
if _ONE_BIT:
    int1 = _make("int1", dtypes.ml_dtypes.int1)
    uint1 = _make("uint1", dtypes.ml_dtypes.uint1)
# Python-typed defaults: jnp.int_ and jnp.float_ follow the x64 flag in JAX; here they name the
# 32-bit types, which is what they canonicalize to with x64 off.
bool = bool_  # noqa: A001
int_ = int32
uint = uint32
float_ = float32
complex_ = complex64
single, double = float32, float64
csingle, cdouble = complex64, complex128
half = float16

# NumPy's abstract scalar hierarchy, for issubdtype checks.
generic = np.generic
number = np.number
inexact = np.inexact
floating = np.floating
complexfloating = np.complexfloating
integer = np.integer
signedinteger = np.signedinteger
unsignedinteger = np.unsignedinteger

__all__ = [
    "bfloat16",
    "bool",
    "bool_",
    "cdouble",
    "complex128",
    "complex64",
    "complex_",
    "complexfloating",
    "csingle",
    "double",
    "float16",
    "float32",
    "float64",
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float_",
    "floating",
    "generic",
    "half",
    "inexact",
    "int16",
    "int2",
    "int32",
    "int4",
    "int64",
    "int8",
    "int_",
    "integer",
    "number",
    "signedinteger",
    "single",
    "uint",
    "uint16",
    "uint2",
    "uint32",
    "uint4",
    "uint64",
    "uint8",
    "unsignedinteger",
]
__all__ += list(_ONE_BIT)
