"""``spmd.random``'s gamma family and counting distributions, bit for bit as JAX 0.10 on CPU.

(Filled in by the functions below; ``__all__`` lists what ``spmd.random`` re-exports.)
"""

from __future__ import annotations

__all__: list[str] = []
