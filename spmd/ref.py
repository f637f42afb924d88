"""``spmd.ref``: mutable array references, as ``jax.ref`` (JAX 0.10): ``new_ref``,
``empty_ref``, ``freeze``, ``free_ref``, ``get``, ``set``, ``swap``, ``addupdate``, ``Ref`` and
``AbstractRef`` (see ``spmd._src.refs``). Re-exports only.

>>> import numpy as np
>>> from spmd import ref
>>> r = ref.new_ref(np.zeros(2, np.float32))
>>> ref.addupdate(r, 0, np.float32(3.0))
>>> ref.get(r)
Array([3., 0.], dtype=float32)
"""

from spmd._src.refs import (  # noqa: F401
    AbstractRef,
    Ref,
    addupdate,
    empty_ref,
    free_ref,
    freeze,
    get,
    new_ref,
    set,
    swap,
)

__all__ = [
    "AbstractRef",
    "Ref",
    "addupdate",
    "empty_ref",
    "free_ref",
    "freeze",
    "get",
    "new_ref",
    "set",
    "swap",
]
