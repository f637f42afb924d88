"""``spmd.memory``: memory spaces, as ``jax.memory`` (JAX 0.10): ``Space`` (``Device``,
``Host``, ``Any``), the memory an array's type says it lives in. Re-exports only.

``jax.device_put(x, jax.memory.Space.Host)`` places ``x`` where it is, in host memory
(``pinned_host``); its type prints ``float32<host>[8]``.

>>> from spmd import memory
>>> memory.Space.Host
MemorySpace.Host
"""

from spmd._src.core import MemorySpace as Space  # noqa: F401

__all__ = ["Space"]
