"""``spmd.random``'s distributions built by transforming uniform and normal draws, bit for bit
as JAX 0.10 on CPU.

(Filled in by the functions below; ``__all__`` lists what ``spmd.random`` re-exports.)
"""

from __future__ import annotations

__all__: list[str] = []
