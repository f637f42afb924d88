"""Elementwise primitives, one module per kind: ``arithmetic``, ``transcendental``, ``bitwise``
(with comparisons), ``selection`` and ``conversion``.

Each primitive is one block: its public wrapper, then any rule of its own, then its
registration. Operands of n-ary primitives share one dtype (``jnp`` does the promotion) and
equal shapes, except that rank-0 operands and size-1 dimensions broadcast. This package is the
family's namespace (``from spmd._src.lax import elementwise as lax``); its modules are
re-exported here.
"""

from spmd._src.lax.elementwise import arithmetic, bitwise, conversion, selection, transcendental
from spmd._src.lax.elementwise.arithmetic import *  # noqa: F403
from spmd._src.lax.elementwise.bitwise import *  # noqa: F403
from spmd._src.lax.elementwise.conversion import *  # noqa: F403
from spmd._src.lax.elementwise.selection import *  # noqa: F403
from spmd._src.lax.elementwise.transcendental import *  # noqa: F403

__all__ = [
    *arithmetic.__all__,
    *bitwise.__all__,
    *conversion.__all__,
    *selection.__all__,
    *transcendental.__all__,
]
