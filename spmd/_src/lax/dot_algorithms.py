"""Dot algorithms: ``lax.DotAlgorithm`` and ``lax.DotAlgorithmPreset``, the ``precision=`` values
that name the operand types, the accumulation type and the number of passes of a contraction.

What JAX 0.10.2 does with them on CPU (measured, see ``tests/test_dot_algorithms.py``):

* Only the presets ``DEFAULT``, ``F16_F16_F16``, ``BF16_BF16_F32``, ``BF16_BF16_F32_X3``,
  ``BF16_BF16_F32_X6``, ``F32_F32_F32`` and ``F64_F64_F64`` run; any other preset and every
  ``DotAlgorithm`` raise ``ValueError`` when the program runs (not when it is traced).
* The result dtype is the usual one (operand types, ``preferred_element_type``), except that a
  narrower integer ``preferred_element_type`` is allowed.
* The value is: each operand converted to the algorithm's operand type (kept if it is one of
  the types the preset takes), contracted into the accumulation type (as a plain contraction of
  those types computes on CPU: 16-bit floats in float32, then rounded), then converted to the
  result dtype. The ``_X3``/``_X6`` pass counts change nothing on CPU: a float32 operand stays
  float32, so ``BF16_BF16_F32`` on float32 operands equals the default contraction bit for bit;
  ``F16_F16_F16`` rounds float32 operands and the result to float16; ``F64_F64_F64`` computes
  float32 operands in float64 and rounds the result.
* One exception: a contraction with a single output element and operands of fewer than 4096
  elements runs in a loop of XLA's own that takes only ``DEFAULT``, ``F32_F32_F32``, the
  ``BF16_BF16_F32`` family on float32 operands and ``F64_F64_F64`` on float64 operands; others
  raise ``JaxRuntimeError`` when the program runs.

>>> from spmd import lax
>>> x = jnp.array([[1.0009765625, 3.0]])
>>> y = jnp.array([[1.0009765625, 1.0], [0.0, 0.0]])
>>> lax.dot(x, y, precision="F16_F16_F16")  # 1.0009765625**2 rounded to float16
Array([[1.0019531, 1.0009766]], dtype=float32)
>>> lax.dot(x, y)
Array([[1.0019541, 1.0009766]], dtype=float32)
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Union

import numpy as np

from spmd._src import dtypes

if TYPE_CHECKING:
    from spmd._src.lax.dot import Precision


class DotAlgorithm(NamedTuple):
    """A contraction algorithm given by its parts: the types the operands are rounded to
    (``lhs_precision_type``, ``rhs_precision_type``), the ``accumulation_type``, how many
    components each operand is split into and how many products are formed (algorithms that
    emulate a wider type), and whether the accumulation may be less precise.

    JAX's CPU backend runs none of these (only the ``DotAlgorithmPreset`` members listed in
    this module's docstring): a contraction with one raises ``ValueError`` when it runs.

    >>> DotAlgorithm(np.float16, np.float16, np.float32).accumulation_type
    <class 'numpy.float32'>
    """

    lhs_precision_type: Any
    rhs_precision_type: Any
    accumulation_type: Any
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


_F8 = (
    dtypes.float8_e4m3fn,
    dtypes.float8_e5m2,
    dtypes.float8_e5m2fnuz,
    dtypes.float8_e4m3fnuz,
    dtypes.float8_e4m3b11fnuz,
)


class DotAlgorithmPreset(enum.Enum):
    """The named contraction algorithms, ``LHS_RHS_ACCUMULATION`` (an ``_X<n>`` suffix: ``n``
    products emulate the wider type). Pass a member, or its name as a string, as the
    ``precision`` of ``lax.dot_general``, ``lax.dot``, ``jnp.dot``, ``jnp.matmul``,
    ``jnp.einsum``, ...

    >>> DotAlgorithmPreset["BF16_BF16_F32"]
    DotAlgorithmPreset.BF16_BF16_F32
    >>> print(DotAlgorithmPreset.F16_F16_F32)
    F16_F16_F32
    """

    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self) -> str:
        return f"DotAlgorithmPreset.{self.name}"

    def __str__(self) -> str:
        return self.name

    @property
    def supported_lhs_types(self) -> tuple | None:
        """The operand types the preset computes in (an operand of another type is converted
        to the first); ``None``: any."""
        name = self.name
        if name == "DEFAULT" or name.startswith("ANY_F8"):
            return None
        if name.startswith("F16_"):
            return (np.float16,)
        if name in ("BF16_BF16_BF16", "BF16_BF16_F32"):
            return (dtypes.bfloat16, np.float32)  # a float32 operand is kept as it is
        if name == "F64_F64_F64":
            return (np.float64,)
        return (np.float32,)  # the emulations (_X3, ...), TF32 and F32

    @property
    def supported_rhs_types(self) -> tuple | None:
        return self.supported_lhs_types

    @property
    def accumulation_type(self) -> Any:
        """The type the products are summed in; ``None``: the result type."""
        return _ACCUMULATION.get(self.name, np.float32)

    def supported_output_types(self, lhs_dtype: Any, rhs_dtype: Any) -> tuple | None:
        """The result types the preset produces directly (another result type is a conversion
        of the first); ``None``: any."""
        name = self.name
        if name.startswith("ANY_F8_ANY_F8_F32"):
            return (np.float32, np.float16, dtypes.bfloat16, *_F8)
        if name in ("F16_F16_F32", "BF16_BF16_F32"):
            narrow = np.float16 if name == "F16_F16_F32" else dtypes.bfloat16
            if dtypes.promote_types(lhs_dtype, rhs_dtype) == np.dtype(narrow):
                return (np.float32, narrow)
            return (np.float32,)
        acc = self.accumulation_type
        return None if acc is None else (acc,)


_ACCUMULATION = {
    "DEFAULT": None,
    "ANY_F8_ANY_F8_ANY": None,
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM": None,
    "F16_F16_F16": np.float16,
    "BF16_BF16_BF16": dtypes.bfloat16,
    "F64_F64_F64": np.float64,
}

# The presets JAX's CPU backend runs.
CPU_PRESETS = frozenset(
    DotAlgorithmPreset[n]
    for n in (
        "DEFAULT",
        "F16_F16_F16",
        "F32_F32_F32",
        "F64_F64_F64",
        "BF16_BF16_F32",
        "BF16_BF16_F32_X3",
        "BF16_BF16_F32_X6",
    )
)

DotDimensionNumbers = tuple[
    tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]
]
# (dot.py's Precision by name: dot.py imports this module.)
PrecisionLike = Union[
    None,
    str,
    "Precision",
    tuple[str, str],
    tuple["Precision", "Precision"],
    DotAlgorithm,
    DotAlgorithmPreset,
]


def is_algorithm(precision: Any) -> bool:
    return isinstance(precision, (DotAlgorithm, DotAlgorithmPreset))


def check_cpu(algorithm: Any, fn: str = "dot_general") -> None:
    """JAX runs only some presets on CPU (its CPU compiler would ignore the others silently)."""
    if algorithm not in CPU_PRESETS:
        raise ValueError(f"The precision '{algorithm}' is not supported by {fn} on CPU")


def compute_types(algorithm, lhs_dtype, rhs_dtype, out_dtype) -> tuple[np.dtype, ...]:
    """The operand types and the accumulation type a contraction with ``algorithm`` computes
    in, for operands of ``lhs_dtype`` and ``rhs_dtype`` and a result of ``out_dtype``."""
    if isinstance(algorithm, DotAlgorithm):
        types = (
            algorithm.lhs_precision_type,
            algorithm.rhs_precision_type,
            algorithm.accumulation_type,
        )
        return tuple(np.dtype(t) for t in types)

    def pick(dt, allowed):
        if allowed is None or np.dtype(dt) in [np.dtype(t) for t in allowed]:
            return np.dtype(dt)
        return np.dtype(allowed[0])

    lt = pick(lhs_dtype, algorithm.supported_lhs_types)
    rt = pick(rhs_dtype, algorithm.supported_rhs_types)
    return lt, rt, pick(out_dtype, algorithm.supported_output_types(lt, rt))


# XLA's CPU backend computes a contraction with one output element and operands of fewer than
# this many elements (2048 for F64_F64_F64, whose operands become float64: 16 KiB either way)
# in a loop of its own (not a library call). DEFAULT and F32_F32_F32 run there on any operands;
# the algorithms below only on two vectors (rank 1, 2 elements or more: XLA's multiply + reduce
# of a vector dot) of the dtype named; every other algorithm or shape (a (1, n) row, a full
# contraction of matrices, vectors of one element) is refused (measured on jaxlib 0.10.2).
_SCALAR_LOOP_MAX = 4096
_SCALAR_LOOP_TAKES = {
    "DEFAULT": None,  # any operands
    "F32_F32_F32": None,
    "BF16_BF16_F32": "float32",  # both operands float32
    "BF16_BF16_F32_X3": "float32",
    "BF16_BF16_F32_X6": "float32",
    "F64_F64_F64": "float64",
}


def _check_scalar_loop(algorithm, lshape, rshape, ldt, rdt, dimension_numbers) -> None:
    (lc, rc), (lb, rb) = dimension_numbers
    out_size = 1
    for d, n in enumerate(lshape):
        out_size *= n if d not in lc else 1
    for d, n in enumerate(rshape):
        out_size *= n if d not in rc and d not in rb else 1
    name = getattr(algorithm, "name", None)
    limit = _SCALAR_LOOP_MAX // 2 if name == "F64_F64_F64" else _SCALAR_LOOP_MAX
    sizes = (_size(lshape), _size(rshape))
    if out_size != 1 or max(sizes) >= limit or min(sizes) == 0:  # empty: XLA emits no dot
        return
    takes = _SCALAR_LOOP_TAKES.get(name, "none")
    if takes is None:
        return
    vectors = len(lshape) == len(rshape) == 1 and lshape[0] >= 2
    if vectors and np.dtype(ldt).name == np.dtype(rdt).name == takes:
        return
    from spmd._src.errors import JaxRuntimeError

    lhs = f"{np.dtype(ldt).name}{list(lshape)}"
    rhs = f"{np.dtype(rdt).name}{list(rshape)}"
    raise JaxRuntimeError(
        f"INVALID_ARGUMENT: Algorithm not supported by the ElementalIrEmitter: ALG_DOT_{name} "
        f"(dot_general with precision={name} on operands {lhs} and {rhs}: XLA's CPU backend "
        f"computes a contraction with one output element and operands of fewer than "
        f"{_SCALAR_LOOP_MAX} elements in a loop that does not take this algorithm)"
    )


def _size(shape) -> int:
    out = 1
    for n in shape:
        out *= n
    return out


@functools.lru_cache(maxsize=256)
def algorithm_plan(lshape, rshape, ldt, rdt, dimension_numbers, algorithm, out_dtype, plan):
    """The kernel of a ``dot_general`` with ``algorithm``: the operands converted to the
    algorithm's types, contracted into its accumulation type by ``plan`` (dot.py's kernel of a
    plain contraction), and the result converted to ``out_dtype``."""
    from spmd._src.lax.dot import to_result

    check_cpu(algorithm)
    _check_scalar_loop(algorithm, lshape, rshape, ldt, rdt, dimension_numbers)
    lt, rt, acc = compute_types(algorithm, ldt, rdt, out_dtype)
    try:
        inner = plan(lshape, rshape, lt, rt, dimension_numbers, acc)
    except TypeError:
        # An integer result narrower than the operands (allowed with an algorithm): the same
        # wrapped value as accumulating in the operand type and converting.
        inner = plan(lshape, rshape, lt, rt, dimension_numbers, None)

    def run(lhs, rhs):
        out = inner(to_result(lhs, lt), to_result(rhs, rt))
        return to_result(np.asarray(out), out_dtype)

    return run


def apply_algorithm(algorithm, lhs, rhs, out_dtype, contract, fn: str = "dot_general"):
    """``contract(lhs, rhs, preferred)`` (a contraction kernel on NumPy values) with
    ``algorithm``'s conversions around it: for kernels without ``dot_general``'s plan
    (``ragged_dot_general``). A 16-bit accumulation is computed in float32 and rounded, as XLA's
    CPU backend computes 16-bit contractions."""
    from spmd._src.lax.dot import compute_dtype, to_result

    check_cpu(algorithm, fn)
    lt, rt, acc = compute_types(algorithm, lhs.dtype, rhs.dtype, out_dtype)
    wide = compute_dtype(lt, acc) if acc.kind == "f" else acc
    out = contract(to_result(lhs, lt), to_result(rhs, rt), wide)
    return to_result(to_result(np.asarray(out), acc), np.dtype(out_dtype))


__all__ = [
    "DotAlgorithm",
    "DotAlgorithmPreset",
    "DotDimensionNumbers",
    "PrecisionLike",
]
