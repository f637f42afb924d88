"""spmd.stages: the stages of a jitted function (``jit(f)`` is ``Wrapped``; ``.trace()``,
``.lower()`` and ``.compile()`` give ``Traced``, ``Lowered`` and ``Compiled``). Re-exports
only, for ``isinstance`` checks and annotations."""

from spmd._src.api import JitWrapped as Wrapped
from spmd._src.lowering import Compiled, Lowered, Traced

__all__ = ["Compiled", "Lowered", "Traced", "Wrapped"]
